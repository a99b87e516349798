import { readFileSync } from 'node:fs';

/** One instruction of a Dockerfile, its continuation lines joined. */
export interface DockerInstruction {
  keyword: string;
  /** The text after the keyword. */
  args: string;
}

/** A build stage: `FROM <base> [AS <name>]` and its instructions. */
export interface DockerStage {
  name: string;
  base: string;
  instructions: DockerInstruction[];
}

/**
 * Reads a Dockerfile into its stages. Covers what Conveyor's Dockerfile uses: comments, backslash continuations,
 * `FROM ... AS name`; no parser directives, heredocs or variable expansion.
 */
export function readDockerfile(path: string): DockerStage[] {
  const logical = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (keyword.toUpperCase() === 'FROM') {
      const [, base, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ name: name ?? String(stages.length), base, instructions: [] });
    } else {
      stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** The instructions that make up `target`: those of the stages it is built on, then its own. */
export function stageChain(stages: DockerStage[], target: string): DockerInstruction[] {
  const stage = stages.find((candidate) => candidate.name === target);
  if (!stage) throw new Error(`The Dockerfile has no stage "${target}" (stages: ${stages.map((s) => s.name).join(', ')})`);
  const own = stage.instructions;
  return stages.some((candidate) => candidate.name === stage.base) ? [...stageChain(stages, stage.base), ...own] : own;
}

/** The JSON (exec) form of a CMD or HEALTHCHECK command: `["node", "-e", "..."]`. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed) || parsed.some((part) => typeof part !== 'string')) throw new Error(`Not an exec-form command: ${args}`);
  return parsed as string[];
}
