import * as SwitchPrimitive from '@radix-ui/react-switch'
import { useId } from 'react'
import { cn } from '../lib/cn.ts'
import { Label } from './Label.tsx'

export interface SwitchProps {
  checked: boolean
  onCheckedChange: (checked: boolean) => void
  label: string
  disabled?: boolean
  className?: string
}

/** An on/off switch with its visible label. */
export function Switch({ checked, onCheckedChange, label, disabled, className }: SwitchProps) {
  const id = useId()
  return (
    <div className={cn('flex items-center gap-2', className)}>
      <SwitchPrimitive.Root
        id={id}
        checked={checked}
        onCheckedChange={onCheckedChange}
        disabled={disabled}
        className="relative inline-flex h-6 w-11 shrink-0 items-center rounded-full bg-gray-400 transition-colors data-[state=checked]:bg-brand-600 disabled:opacity-60"
      >
        <SwitchPrimitive.Thumb className="block size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[1.375rem]" />
      </SwitchPrimitive.Root>
      <Label htmlFor={id}>{label}</Label>
    </div>
  )
}
