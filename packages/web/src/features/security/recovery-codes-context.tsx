import { createContext, useContext, useState, type ReactNode } from 'react'
import { RecoveryCodesDialog } from './RecoveryCodesDialog.tsx'

type ShowRecoveryCodes = (codes: string[]) => void
const RecoveryCodesContext = createContext<ShowRecoveryCodes | null>(null)

/**
 * Holds the "save your recovery codes" dialog above the pages: a page that makes codes (the
 * gate, above all, which gives way to the workspace as soon as a second step is on) may
 * disappear while they are still on screen.
 */
export function RecoveryCodesProvider({ children }: { children: ReactNode }) {
  const [codes, setCodes] = useState<string[] | null>(null)
  return (
    <RecoveryCodesContext.Provider value={setCodes}>
      {children}
      <RecoveryCodesDialog codes={codes} onDone={() => setCodes(null)} />
    </RecoveryCodesContext.Provider>
  )
}

/** Shows new recovery codes, once, until the person says they saved them. */
export function useShowRecoveryCodes(): ShowRecoveryCodes {
  const show = useContext(RecoveryCodesContext)
  if (!show) throw new Error('useShowRecoveryCodes needs <RecoveryCodesProvider> above it')
  return show
}
