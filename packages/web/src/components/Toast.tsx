import * as ToastPrimitive from '@radix-ui/react-toast'
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react'
import { cn } from '../lib/cn.ts'

export interface ToastMessage {
  title: string
  description?: string
  tone?: 'success' | 'error' | 'info'
}

type Notify = (message: ToastMessage) => void
const ToastContext = createContext<Notify | null>(null)

/** `const toast = useToast(); toast({ title: 'Key revoked' })` — a short, announced notice. */
export function useToast(): Notify {
  const notify = useContext(ToastContext)
  if (!notify) throw new Error('useToast needs <ToastProvider> above it')
  return notify
}

interface QueuedToast extends ToastMessage {
  id: number
}

let nextId = 1

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<QueuedToast[]>([])
  const notify = useCallback<Notify>((message) => setToasts((list) => [...list, { ...message, id: nextId++ }]), [])
  const dismiss = (id: number) => setToasts((list) => list.filter((toast) => toast.id !== id))
  const value = useMemo(() => notify, [notify])
  return (
    <ToastContext.Provider value={value}>
      <ToastPrimitive.Provider swipeDirection="right" duration={5000}>
        {children}
        {toasts.map((toast) => (
          <ToastPrimitive.Root
            key={toast.id}
            type={toast.tone === 'error' ? 'foreground' : 'background'}
            onOpenChange={(open) => !open && dismiss(toast.id)}
            className={cn(
              'flex items-start justify-between gap-3 rounded-lg border bg-white p-3 shadow-lg',
              toast.tone === 'error' ? 'border-red-300' : toast.tone === 'success' ? 'border-green-300' : 'border-line',
            )}
          >
            <div>
              <ToastPrimitive.Title className="text-sm font-semibold">{toast.title}</ToastPrimitive.Title>
              {toast.description && <ToastPrimitive.Description className="mt-0.5 text-sm text-muted">{toast.description}</ToastPrimitive.Description>}
            </div>
            <ToastPrimitive.Close className="rounded px-1 text-sm text-muted hover:bg-gray-100" aria-label="Dismiss">
              ✕
            </ToastPrimitive.Close>
          </ToastPrimitive.Root>
        ))}
        {/*
         * At the top below lg: there the template editor keeps its save bar at the foot of the screen,
         * and a toast about a save would cover the buttons to save again or undo.
         */}
        <ToastPrimitive.Viewport className="fixed top-0 right-0 z-[60] flex w-full max-w-sm flex-col gap-2 p-4 outline-none lg:top-auto lg:bottom-0" />
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  )
}
