#!/usr/bin/env node
// The command-line entry. It lives outside dist/ so that installing the package links it even
// before a build (pnpm warns about a missing bin target in a fresh workspace otherwise).
// CommonJS (.cjs in a "type": "module" package): Node runs it without starting its ES module
// loader, and it loads the CLI bundle directly (dist/cli.js, an ES module, does the same for
// `node dist/cli.js`).
require('../dist/cli-bundle.cjs');
