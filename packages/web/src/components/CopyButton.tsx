import { useEffect, useState } from 'react'
import { Button, type ButtonProps } from './Button.tsx'

export interface CopyButtonProps extends Omit<ButtonProps, 'onClick' | 'children'> {
  value: string
  /** The button's text; "Copied" replaces it for two seconds. */
  label?: string
}

/** Copies `value` to the clipboard and says so (also to screen readers). */
export function CopyButton({ value, label = 'Copy', variant = 'secondary', size = 'sm', ...rest }: CopyButtonProps) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  useEffect(() => {
    if (state === 'idle') return
    const timer = setTimeout(() => setState('idle'), 2000)
    return () => clearTimeout(timer)
  }, [state])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <Button variant={variant} size={size} onClick={() => void copy()} {...rest}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text' : label}</span>
    </Button>
  )
}
