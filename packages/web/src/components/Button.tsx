import { Slot } from '@radix-ui/react-slot'
import type { ButtonHTMLAttributes, Ref } from 'react'
import { cn } from '../lib/cn.ts'
import { Spinner } from './Spinner.tsx'

/** `danger-secondary`: a destructive action on a page (its confirmation uses `danger`). */
export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'danger-secondary' | 'ghost'

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant
  size?: 'sm' | 'md'
  /** Disables the button and shows a spinner beside its label. */
  loading?: boolean
  /** Renders the child element (a Link, an <a>) with the button's look. */
  asChild?: boolean
  ref?: Ref<HTMLButtonElement>
}

const variants: Record<ButtonVariant, string> = {
  primary: 'bg-brand-600 text-white hover:bg-brand-700 disabled:bg-brand-600/60',
  secondary: 'bg-white text-ink border border-line hover:bg-gray-50 disabled:text-muted',
  danger: 'bg-red-700 text-white hover:bg-red-800 disabled:bg-red-700/60',
  'danger-secondary': 'bg-white text-red-700 border border-red-300 hover:bg-red-50 disabled:text-muted',
  ghost: 'text-ink hover:bg-gray-100 disabled:text-muted',
}

export function buttonClass(variant: ButtonVariant = 'primary', size: 'sm' | 'md' = 'md', className?: string): string {
  return cn(
    'inline-flex items-center justify-center gap-2 rounded-md font-medium whitespace-nowrap transition-colors',
    'disabled:cursor-not-allowed',
    size === 'sm' ? 'h-8 px-3 text-sm' : 'h-10 px-4 text-sm',
    variants[variant],
    className,
  )
}

export function Button({ variant = 'primary', size = 'md', loading = false, asChild = false, className, children, disabled, type, ...rest }: ButtonProps) {
  const classes = buttonClass(variant, size, className)
  if (asChild)
    return (
      <Slot className={classes} {...rest}>
        {children}
      </Slot>
    )
  return (
    <button type={type ?? 'button'} className={classes} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading && <Spinner className="size-4" />}
      {children}
    </button>
  )
}
