/** `catalog config`: each setting, its value and where it came from (flag, env, profile, default). */
import type { Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { EXIT } from '../../exit-codes.js';
import { declareSimpleVerb, type Invoke } from '../../runner.js';

/** Declares `config` on its parent command. */
export function declare(program: Command, invoke: Invoke): Command {
  return declareSimpleVerb(program, invoke, 'config', 'show the effective configuration and where each value came from', run);
}

/** Prints the settings. */
export async function run(ctx: CommandContext): Promise<number> {
  const c = ctx.config;
  const rows = [
    { setting: 'mode', value: c.remote.value !== undefined ? 'remote' : 'local', source: c.remote.value !== undefined ? c.remote.source : 'default' },
    { setting: 'data-dir', value: c.dataDir.value, source: c.dataDir.source },
    { setting: 'remote', value: c.remote.value ?? '', source: c.remote.source },
    { setting: 'token', value: c.token.value !== undefined ? `set (${c.tokenFrom})` : 'not set', source: c.token.source },
    { setting: 'profile', value: c.profile.value ?? '', source: c.profile.source },
    { setting: 'output', value: ctx.format, source: c.output.source },
    { setting: 'config-file', value: c.configFile, source: 'default' },
  ];
  const { emitRecords } = await import('../../output/emit.js');
  const fields = ['setting', 'value', 'source'];
  await emitRecords(ctx, { fields, defaultFields: fields }, rows);
  return EXIT.OK;
}
