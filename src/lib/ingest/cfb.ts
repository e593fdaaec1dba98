/**
 * Microsoft Compound File Binary (OLE2) containers. A password-protected DOCX is not a zip: Office
 * wraps the encrypted package in a CFB file with an `EncryptedPackage` stream. A legacy .doc is a
 * CFB with a `WordDocument` stream. We read only the header, the FAT sectors it lists and the
 * directory chain, to learn the stream names.
 */
import type { FileHandle } from 'node:fs/promises';

export const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const END_OF_CHAIN = 0xfffffffe;
const MAX_DIRECTORY_SECTORS = 256;

export function isCfb(head: Buffer): boolean {
  return head.length >= 8 && head.subarray(0, 8).equals(CFB_SIGNATURE);
}

/** Names of the streams and storages in a CFB file (empty if the structure cannot be followed). */
export async function cfbEntryNames(fh: FileHandle, fileSize: number): Promise<string[]> {
  const header = Buffer.alloc(512);
  await fh.read({ buffer: header, position: 0, length: 512 });
  if (!isCfb(header)) return [];
  const sectorShift = header.readUInt16LE(30);
  if (sectorShift !== 9 && sectorShift !== 12) return [];
  const sectorSize = 1 << sectorShift;
  const entriesPerFatSector = sectorSize / 4;
  const fatSectorCount = Math.min(header.readUInt32LE(44), 109);
  const fatSectors: number[] = [];
  for (let i = 0; i < fatSectorCount; i++) fatSectors.push(header.readUInt32LE(76 + i * 4));

  const sectorOffset = (s: number): number => (s + 1) * sectorSize;
  const readSector = async (s: number): Promise<Buffer | null> => {
    const pos = sectorOffset(s);
    if (pos + sectorSize > fileSize) return null;
    const buf = Buffer.alloc(sectorSize);
    await fh.read({ buffer: buf, position: pos, length: sectorSize });
    return buf;
  };
  const fatCache = new Map<number, Buffer | null>();
  const nextSector = async (s: number): Promise<number> => {
    const fatIndex = Math.floor(s / entriesPerFatSector);
    if (fatIndex >= fatSectors.length) return END_OF_CHAIN;
    if (!fatCache.has(fatIndex)) fatCache.set(fatIndex, await readSector(fatSectors[fatIndex]!));
    const fat = fatCache.get(fatIndex);
    return fat ? fat.readUInt32LE((s % entriesPerFatSector) * 4) : END_OF_CHAIN;
  };

  const names: string[] = [];
  const seen = new Set<number>();
  let sector = header.readUInt32LE(48);
  while (sector < 0xfffffffa && !seen.has(sector) && seen.size < MAX_DIRECTORY_SECTORS) {
    seen.add(sector);
    const dir = await readSector(sector);
    if (!dir) break;
    for (let off = 0; off + 128 <= dir.length; off += 128) {
      const nameBytes = dir.readUInt16LE(off + 64);
      if (nameBytes < 2 || nameBytes > 64) continue;
      names.push(dir.toString('utf16le', off, off + nameBytes - 2));
    }
    sector = await nextSector(sector);
  }
  return names;
}
