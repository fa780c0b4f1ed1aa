export function Logo({ className }: { className?: string }) {
  return (
    <span className={className}>
      <svg viewBox="0 0 24 24" className="mr-1.5 inline size-6 align-[-5px] text-brand-600" fill="none" aria-hidden="true">
        <path d="M4 17c3-1 4-9 7-9s1 7 4 7 3-4 5-4" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
        <path d="M4 21h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
      </svg>
      <span className="text-lg font-bold tracking-tight">Signet</span>
    </span>
  )
}
