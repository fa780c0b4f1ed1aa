import type { Command } from 'commander'

/** Every command path (`templates list`) with its options, read from the program itself so it never drifts. */
function commandsOf(program: Command): { path: string; options: string[] }[] {
  const walk = (command: Command, prefix: string[]): { path: string; options: string[] }[] =>
    command.commands.flatMap((sub) => {
      const path = [...prefix, sub.name()]
      const own = { path: path.join(' '), options: [...sub.options.map((o) => o.long ?? ''), '--help'].filter(Boolean) }
      return sub.commands.length > 0 ? [{ path: own.path, options: ['--help'] }, ...walk(sub, path)] : [own]
    })
  return walk(program, [])
}

function bash(program: Command): string {
  const entries = commandsOf(program)
  const top = entries.filter((e) => !e.path.includes(' ')).map((e) => e.path)
  const cases = entries
    .map((e) => {
      const subs = entries.filter((s) => s.path.startsWith(`${e.path} `)).map((s) => s.path.slice(e.path.length + 1))
      return `    "${e.path}") words="${[...subs, ...e.options].join(' ')}" ;;`
    })
    .join('\n')
  return `# signet completion for bash: eval "$(signet completion bash)" (e.g. in ~/.bashrc)
_signet() {
  local cur path words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) [ -z "$path" ] && path="\${COMP_WORDS[i]}" || path="$path \${COMP_WORDS[i]}" ;; esac
  done
  case "$path" in
    "") words="${top.join(' ')} --help --version" ;;
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [ \${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _signet signet
`
}

function zsh(program: Command): string {
  return `#compdef signet
# signet completion for zsh: eval "$(signet completion zsh)" (e.g. in ~/.zshrc, after compinit)
autoload -U bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`
}

export async function completion(shell: 'bash' | 'zsh', program: Command): Promise<number> {
  process.stdout.write(shell === 'bash' ? bash(program) : zsh(program))
  return 0
}
