import * as SelectPrimitive from '@radix-ui/react-select'
import { cn } from '../lib/cn.ts'
import { useFieldControl } from './Field.tsx'

export interface SelectOption {
  value: string
  label: string
  disabled?: boolean
}

export interface SelectProps {
  value: string | undefined
  onValueChange: (value: string) => void
  options: SelectOption[]
  placeholder?: string
  disabled?: boolean
  /** Needed when the Select is not inside a Field (which names it through its label). */
  'aria-label'?: string
  className?: string
}

/** A Radix select: keyboard and screen-reader friendly; inside a Field it takes the Field's label. */
export function Select({ value, onValueChange, options, placeholder = 'Choose…', disabled, className, ...aria }: SelectProps) {
  const field = useFieldControl()
  return (
    <SelectPrimitive.Root value={value ?? ''} onValueChange={onValueChange} disabled={disabled}>
      <SelectPrimitive.Trigger
        {...field}
        aria-label={aria['aria-label']}
        className={cn(
          'inline-flex h-10 w-full items-center justify-between gap-2 rounded-md border border-line bg-white px-3 text-base sm:text-sm',
          'data-[placeholder]:text-gray-600 disabled:bg-gray-100 aria-[invalid=true]:border-red-700',
          className,
        )}
      >
        {/* A long label (such as a role's name) ends in "…" rather than spilling out of the box; Radix's Value drops a className. */}
        <span className="truncate">
          <SelectPrimitive.Value placeholder={placeholder} />
        </span>
        <SelectPrimitive.Icon aria-hidden="true">
          <svg viewBox="0 0 20 20" className="size-4 text-muted" fill="currentColor">
            <path d="M5.3 7.3a1 1 0 0 1 1.4 0L10 10.6l3.3-3.3a1 1 0 1 1 1.4 1.4l-4 4a1 1 0 0 1-1.4 0l-4-4a1 1 0 0 1 0-1.4Z" />
          </svg>
        </SelectPrimitive.Icon>
      </SelectPrimitive.Trigger>
      <SelectPrimitive.Portal>
        <SelectPrimitive.Content
          position="popper"
          sideOffset={4}
          className="z-50 max-h-[var(--radix-select-content-available-height)] min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border border-line bg-white shadow-lg"
        >
          <SelectPrimitive.Viewport className="p-1">
            {options.map((option) => (
              <SelectPrimitive.Item
                key={option.value}
                value={option.value}
                disabled={option.disabled}
                className="flex cursor-default items-center rounded px-2 py-2 text-sm outline-none select-none data-[disabled]:text-gray-500 data-[highlighted]:bg-brand-50 data-[state=checked]:font-semibold"
              >
                <SelectPrimitive.ItemText>{option.label}</SelectPrimitive.ItemText>
              </SelectPrimitive.Item>
            ))}
          </SelectPrimitive.Viewport>
        </SelectPrimitive.Content>
      </SelectPrimitive.Portal>
    </SelectPrimitive.Root>
  )
}
