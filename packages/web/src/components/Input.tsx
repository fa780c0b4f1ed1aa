import type { InputHTMLAttributes, Ref, TextareaHTMLAttributes } from 'react'
import { cn } from '../lib/cn.ts'
import { useFieldControl } from './Field.tsx'

const controlClass =
  'w-full rounded-md border border-line bg-white px-3 text-base text-ink placeholder:text-gray-500 sm:text-sm ' +
  'read-only:bg-gray-50 disabled:bg-gray-100 disabled:text-muted aria-[invalid=true]:border-red-700'

export function Input({ className, ref, ...rest }: InputHTMLAttributes<HTMLInputElement> & { ref?: Ref<HTMLInputElement> }) {
  const field = useFieldControl()
  return <input ref={ref} className={cn(controlClass, 'h-10', className)} {...field} {...rest} />
}

export function Textarea({ className, ref, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: Ref<HTMLTextAreaElement> }) {
  const field = useFieldControl()
  return <textarea ref={ref} className={cn(controlClass, 'min-h-24 py-2', className)} {...field} {...rest} />
}
