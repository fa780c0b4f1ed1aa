import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useMe } from '../../auth/session.ts'
import { Card } from '../../components/Card.tsx'
import { Field } from '../../components/Field.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { useToast } from '../../components/Toast.tsx'
import { signerLanguageQuery, useSetSignerLanguage, type SignerLanguageSetting } from './queries.ts'
import { SaveFooter } from './SaveFooter.tsx'

/** The languages the server has catalogs for (signing/i18n), each named in itself as signers see it. */
const LANGUAGES: { value: NonNullable<SignerLanguageSetting>; label: string }[] = [
  { value: 'en', label: 'English' },
  { value: 'de', label: 'Deutsch (German)' },
  { value: 'fr', label: 'Français (French)' },
  { value: 'es', label: 'Español (Spanish)' },
  { value: 'it', label: 'Italiano (Italian)' },
  { value: 'nl', label: 'Nederlands (Dutch)' },
  { value: 'pt-BR', label: 'Português (Brazilian Portuguese)' },
  { value: 'pl', label: 'Polski (Polish)' },
  { value: 'ja', label: '日本語 (Japanese)' },
  { value: 'ar', label: 'العربية (Arabic)' },
]
/** The Select's value for "no default": the signer's browser decides. */
const NONE = 'none'
const OPTIONS = [{ value: NONE, label: "No default: the signer's browser decides" }, ...LANGUAGES]

/** Settings → Reminders' second card: the language of signer pages and e-mails when a document names none. */
export function SignerLanguageCard() {
  const me = useMe()
  const setting = useQuery(signerLanguageQuery)
  return (
    <Card title="Signer language">
      <QueryView query={setting} loadingLabel="Loading the signer language…">
        {({ language }) => (
          <>
            <p className="text-sm text-muted">
              Signer pages and e-mails use a document&apos;s own language when it was sent with one; otherwise pages follow the signer&apos;s browser, then this
              default, and e-mails this default, else English. Signers can switch on the page.
            </p>
            {me.abilities.manage_billing ? (
              <SignerLanguageForm saved={language} />
            ) : (
              <p className="mt-2 text-sm">
                {LANGUAGES.find((l) => l.value === language)?.label ?? 'No default'}. Only owners and admins of this workspace change it.
              </p>
            )}
          </>
        )}
      </QueryView>
    </Card>
  )
}

function SignerLanguageForm({ saved }: { saved: SignerLanguageSetting }) {
  const toast = useToast()
  const [choice, setChoice] = useState<string>(saved ?? NONE)
  const save = useSetSignerLanguage()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const language = LANGUAGES.find((l) => l.value === choice)?.value ?? null
    save.mutate(language, { onSuccess: () => toast({ title: 'Signer language saved', tone: 'success' }) })
  }
  return (
    <form onSubmit={submit} noValidate className="mt-4 flex flex-col gap-4 border-t border-line pt-4">
      <Field label="Default language">
        <Select value={choice} onValueChange={setChoice} options={OPTIONS} className="sm:max-w-sm" />
      </Field>
      <SaveFooter saving={save.isPending} error={save.error} errorTitle="The signer language was not saved" />
    </form>
  )
}
