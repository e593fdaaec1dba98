// `prepare` starts with `node scripts/is-npx-install.js || (build…)`: this exits 0 — so the build
// is skipped — when npm runs `prepare` because `npx mindprint` in the clone installs the clone into
// npx's cache (npm 11 does so for a project's own bin, as a link, and runs its `prepare` then:
// npm_command is `exec`). Building there would take a minute on the first npx call and empty
// dist/ under whatever runs from it; bin/mindprint.js runs the sources when the build is stale, so
// nothing is lost. After `npm ci` or `npm install` it exits 1, and the build runs.
process.exit(process.env.npm_command === 'exec' ? 0 : 1);
