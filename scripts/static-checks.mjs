// Lint and type-check at the same time: each runs on one core, and `npm test` on a 2-core machine
// waited for one after the other (about 5 minutes). Each check's output is printed whole when it
// ends, so the two never interleave; the exit code is the first failure's.
import { spawn } from 'node:child_process'

const CHECKS = [
  ['lint', 'npm', ['run', '-s', 'lint']],
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
]

const results = await Promise.all(
  CHECKS.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const started = Date.now()
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
        let output = ''
        child.stdout.on('data', (chunk) => (output += chunk))
        child.stderr.on('data', (chunk) => (output += chunk))
        child.on('close', (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(0)
          process.stdout.write(`== ${name}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s ==\n${output}`)
          resolve(code ?? 1)
        })
      }),
  ),
)
process.exitCode = results.find((code) => code !== 0) ?? 0
