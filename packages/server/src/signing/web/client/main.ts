/**
 * Signet – browser script of the signer's pages (the signing page and the e-mail code page),
 * bundled by esbuild into /sign-assets/sign.js (signing-assets.ts). pages.ts
 * renders the markup and passes data as JSON in <script type="application/json" id="signet-boot">.
 * The pages run under a strict CSP (no inline script or style attributes), so all behaviour is
 * wired here and positions are set via element.style.
 *
 * Test hooks (accessible names / ids):
 *   Signing page
 *     toolbar buttons "Finish" (#finish), "Decline" (#decline-open), "Next field" (#next-field);
 *     progress text #progress-text ("1 of 3 required fields done");
 *     fields: .field[data-field-id][data-type] > .field-control, accessible names like
 *       "Sign: Signature (required), page 1", "Company (optional), page 2", "Date (filled in automatically), page 1";
 *     signature dialog #signature-dialog: tabs "Draw" / "Type", canvas "Signature drawing area",
 *       input "Type your name" ("Type your initials" for initials), buttons "Clear", "Cancel", "Apply", "Remove";
 *     decline dialog #decline-dialog: textarea "Reason (optional)", button "Decline to sign" (#decline-confirm);
 *     errors in #sign-alert (role=alert) with "Reload the page" / "Dismiss"; announcements in #live;
 *     body[data-ready] is set once the first page has rendered.
 *   Code page
 *     buttons "Email me a code" (#code-send), "Verify" (#code-verify), "Send a new code" (#code-resend);
 *     input "6-digit code" (#code-input); messages in #code-message; body[data-ready] once wired.
 */
import { readBoot } from './boot.ts'
import { initCode } from './code-page.ts'
import { initSigning } from './signing-page.ts'
import { useMessages } from './i18n.ts'
import { connectParent } from './parent-frame.ts'

const boot = readBoot()

for (const button of document.querySelectorAll('[data-close]')) {
  button.addEventListener('click', () => button.closest('dialog')?.close())
}

if (boot.view) useMessages(boot.messages, boot.language)
if (boot.view === 'sign') connectParent(boot.parentOrigin)
if (boot.view === 'sign') initSigning(boot)
if (boot.view === 'code') initCode(boot)
