#!/usr/bin/env node
// Thin shim: all logic lives in the built CLI (src/cli/main.ts).
import { main } from '../dist/cli/main.js';
await main(process.argv);
