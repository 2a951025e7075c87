#!/usr/bin/env node
// The command-line entry. It lives outside dist/ so that installing the package links it even
// before a build (pnpm warns about a missing bin target in a fresh workspace otherwise).
import '../dist/cli.js';
