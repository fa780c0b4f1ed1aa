import { createContext, useContext, useId, type ReactNode } from 'react'
import { cn } from '../lib/cn.ts'
import { Label } from './Label.tsx'

interface FieldControl {
  id: string
  'aria-describedby'?: string
  'aria-invalid'?: true
  required?: boolean
}

const FieldContext = createContext<FieldControl | null>(null)

/** The id and ARIA links an Input, Textarea or Select inside a Field takes on by itself. */
export function useFieldControl(): FieldControl | null {
  return useContext(FieldContext)
}

export interface FieldProps {
  label: ReactNode
  /** The error text for this field (e.g. the server's {error}); shown under it and announced. */
  error?: string | null | undefined
  hint?: ReactNode
  required?: boolean
  className?: string
  /** One control: Input, Textarea, Select or Switch (they read the Field's id and aria-describedby). */
  children: ReactNode
}

/** A label, its control, a hint and an error text, linked for assistive technology. */
export function Field({ label, error, hint, required, className, children }: FieldProps) {
  const id = useId()
  const hintId = hint ? `${id}-hint` : undefined
  const errorId = error ? `${id}-error` : undefined
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined
  const control: FieldControl = {
    id,
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(error ? { 'aria-invalid': true as const } : {}),
    ...(required ? { required: true } : {}),
  }
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <Label htmlFor={id}>
        {label}
        {required && (
          <span className="text-red-700" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </Label>
      <FieldContext.Provider value={control}>{children}</FieldContext.Provider>
      {hint && (
        <p id={hintId} className="text-sm text-muted">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="text-sm text-red-700" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
