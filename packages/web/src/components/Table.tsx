import { useEffect, useRef, useState, type HTMLAttributes, type ReactNode, type TdHTMLAttributes, type ThHTMLAttributes } from 'react'
import { cn } from '../lib/cn.ts'

/** Whether the box is narrower than what it holds (it scrolls sideways), kept up to date as either resizes. */
function useOverflowsSideways() {
  const box = useRef<HTMLDivElement>(null)
  const [overflows, setOverflows] = useState(false)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const measure = () => setOverflows(element.scrollWidth > element.clientWidth)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    if (element.firstElementChild) observer.observe(element.firstElementChild)
    return () => observer.disconnect()
  }, [])
  return { box, overflows }
}

/**
 * A table that scrolls sideways inside its own box on a phone instead of widening the page. When
 * it does scroll, the box takes keyboard focus (arrow keys scroll it), even when no row holds a
 * button to tab to: a region only a mouse could scroll is an accessibility failure.
 */
export function Table({ caption, children, className }: { caption?: string; children: ReactNode; className?: string }) {
  const { box, overflows } = useOverflowsSideways()
  return (
    <div
      ref={box}
      {...(overflows ? { tabIndex: 0, role: 'region', 'aria-label': caption ?? 'Table' } : {})}
      className={cn('overflow-x-auto rounded-lg border border-line bg-white focus-visible:outline-2 focus-visible:outline-brand-600', className)}
    >
      <table className="w-full border-collapse text-left text-sm">
        {caption && <caption className="sr-only">{caption}</caption>}
        {children}
      </table>
    </div>
  )
}

export function THead({ children }: { children: ReactNode }) {
  return <thead className="border-b border-line bg-gray-50 text-xs uppercase tracking-wide text-muted">{children}</thead>
}

export function TBody({ children }: { children: ReactNode }) {
  return <tbody className="divide-y divide-gray-200">{children}</tbody>
}

export function Tr({ className, ...rest }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cn('align-middle', className)} {...rest} />
}

export function Th({ className, ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return <th scope="col" className={cn('px-2 py-2 font-semibold whitespace-nowrap sm:px-3', className)} {...rest} />
}

export function Td({ className, ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cn('px-2 py-2.5 sm:px-3', className)} {...rest} />
}

/** The header of a column of row buttons: named for screen readers, blank on screen. */
export function ActionsTh() {
  return (
    <Th>
      <span className="sr-only">Actions</span>
    </Th>
  )
}
