import { useState, type DragEvent, type ReactNode } from 'react'
import { buttonClass } from '../../components/index.ts'
import { cn } from '../../lib/cn.ts'

const isPdf = (file: File) => file.type === 'application/pdf' || /\.pdf$/i.test(file.name)

/**
 * Drag and drop for a PDF anywhere over the element given `handlers` (the page), or the file
 * button (PdfChooser): both hand over one PDF; anything else is refused with a reason.
 */
export function usePdfDrop(onFile: (file: File) => void) {
  const [dragging, setDragging] = useState(false)
  const [refusal, setRefusal] = useState<string | null>(null)
  const take = (file: File | undefined) => {
    if (!file) return
    if (!isPdf(file)) {
      setRefusal(`${file.name} is not a PDF: choose a .pdf file.`)
      return
    }
    setRefusal(null)
    onFile(file)
  }
  const handlers = {
    onDragOver: (event: DragEvent) => {
      if (!event.dataTransfer.types.includes('Files')) return
      event.preventDefault()
      setDragging(true)
    },
    onDragLeave: (event: DragEvent) => {
      // Leaving for a child element is not leaving the page area.
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false)
    },
    onDrop: (event: DragEvent) => {
      event.preventDefault()
      setDragging(false)
      take(event.dataTransfer.files[0])
    },
  }
  return { dragging, refusal, take, handlers }
}

/** The page's file button (its primary action until a PDF is chosen), reachable by keyboard. */
export function PdfChooser({ chosen, onChoose }: { chosen: File | null; onChoose: (file: File | undefined) => void }) {
  return (
    <label className={buttonClass(chosen ? 'secondary' : 'primary', 'md', 'cursor-pointer has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-brand-600')}>
      {chosen ? 'Choose another PDF' : 'Upload a PDF'}
      <input
        type="file"
        accept="application/pdf,.pdf"
        aria-label="PDF file"
        className="sr-only"
        onChange={(event) => {
          onChoose(event.target.files?.[0])
          event.target.value = ''
        }}
      />
    </label>
  )
}

/** Where a PDF dragged over the page is dropped; then the chosen file's name, a refusal's reason, and `children` (the upload form). */
export function PdfDropZone({ dragging, chosen, refusal, children }: { dragging: boolean; chosen: File | null; refusal: string | null; children?: ReactNode }) {
  return (
    <div className={cn('rounded-lg border-2 border-dashed border-line bg-white p-4 sm:p-6', dragging && 'border-brand-600 bg-brand-50')}>
      <div className="flex flex-col items-center gap-2 text-center">
        <p className="text-sm font-medium">
          {dragging ? 'Drop the PDF to upload it' : chosen ? chosen.name : 'Drag a PDF here, or choose one with “Upload a PDF”.'}
        </p>
        {refusal && (
          <p role="alert" className="text-sm text-red-700">
            {refusal}
          </p>
        )}
      </div>
      {children}
    </div>
  )
}
