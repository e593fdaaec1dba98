// Stops at once, in one line, when this Node.js is older than Mindprint needs: otherwise the first
// newer API (node:module's enableCompileCache, for one) fails as a SyntaxError with a stack trace
// that does not say what is wrong. It runs before anything else: first in bin/mindprint.js and in
// the npm scripts (`node bin/require-node.js && …`). So it must itself run on old Node: only
// old syntax and APIs here, and nothing imported. MINIMUM is package.json's engines.node (a test
// keeps the two equal).
export const MINIMUM = '22.12.0';

const [major, minor] = process.versions.node.split('.').map(Number);
const [needMajor, needMinor] = MINIMUM.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(
    'mindprint needs Node.js ' + needMajor + '.' + needMinor + ' or later; this is ' + process.version +
      ' (' + process.execPath + '). Get it from https://nodejs.org/en/download (or `nvm install 22`), then run the command again.\n',
  );
  process.exit(1);
}
