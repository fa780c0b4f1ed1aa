import { useEffect, useState } from 'react'
import { Input } from '../../components/Input.tsx'
import { Label } from '../../components/Label.tsx'

/** A search field that reports its text a moment after typing stops. */
export function SearchBox({ label, onSearch }: { label: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState('')
  useEffect(() => {
    const timer = setTimeout(() => onSearch(text.trim()), 250)
    return () => clearTimeout(timer)
  }, [text, onSearch])
  return (
    <div className="mb-3 flex max-w-md flex-col gap-1.5">
      <Label htmlFor="operator-search">{label}</Label>
      <Input id="operator-search" type="search" value={text} onChange={(e) => setText(e.target.value)} />
    </div>
  )
}
