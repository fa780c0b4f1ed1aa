// Signet – browser script of the signer's pages (the signing page and the e-mail code page).
// Plain ES module, no build step. pages.ts renders the markup and passes data as JSON in
// <script type="application/json" id="signet-boot">. The pages run under a strict CSP (no inline
// script or style attributes), so all behaviour is wired here and positions are set via element.style.
//
// Test hooks (accessible names / ids):
//   Signing page
//     toolbar buttons "Finish" (#finish), "Decline" (#decline-open), "Next field" (#next-field);
//     progress text #progress-text ("1 of 3 required fields done");
//     fields: .field[data-field-id][data-type] > .field-control, accessible names like
//       "Sign: Signature (required), page 1", "Company (optional), page 2", "Date (filled in automatically), page 1";
//     signature dialog #signature-dialog: tabs "Draw" / "Type", canvas "Signature drawing area",
//       input "Type your name" ("Type your initials" for initials), buttons "Clear", "Cancel", "Apply", "Remove";
//     decline dialog #decline-dialog: textarea "Reason (optional)", button "Decline to sign" (#decline-confirm);
//     errors in #sign-alert (role=alert) with "Reload the page" / "Dismiss"; announcements in #live;
//     body[data-ready] is set once the first page has rendered.
//   Code page
//     buttons "Email me a code" (#code-send), "Verify" (#code-verify), "Send a new code" (#code-resend);
//     input "6-digit code" (#code-input); messages in #code-message; body[data-ready] once wired.

const boot = JSON.parse(document.getElementById('signet-boot')?.textContent || '{}')
const $ = (selector) => document.querySelector(selector)
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches
const INK = '#10245e'

/** POSTs JSON and returns the answer; failures throw an Error with the server's `error` text and `status`. */
async function postJson(url, body) {
  let response
  try {
    response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  } catch {
    throw Object.assign(new Error('Could not reach the server. Check your connection and try again.'), { status: 0 })
  }
  const data = await response.json().catch(() => ({}))
  if (!response.ok) {
    const text = typeof data.error === 'string' ? data.error : `Something went wrong (HTTP ${response.status}). Please try again.`
    throw Object.assign(new Error(text), { status: response.status })
  }
  return data
}

/** Screen-reader announcement; emptied first so that the same text is announced again. */
function announce(text) {
  const live = $('#live')
  live.textContent = ''
  setTimeout(() => (live.textContent = text), 50)
}

for (const button of document.querySelectorAll('[data-close]')) {
  button.addEventListener('click', () => button.closest('dialog').close())
}

if (boot.view === 'sign') initSigning()
if (boot.view === 'code') initCode()

function initSigning() {
  const fields = [...document.querySelectorAll('.field')].map((el) => ({
    el,
    id: el.dataset.fieldId,
    type: el.dataset.type,
    required: el.classList.contains('is-required'),
    control: el.querySelector('.field-control'),
    name: el.querySelector('.field-control').getAttribute('aria-label'),
  }))
  const required = fields.filter((f) => f.required)
  const marks = new Map() // field id → PNG data URL, for signature and initials fields
  const adopted = {} // field type → the last mark applied, reused by a single click on the next empty field
  const finish = $('#finish')
  let busy = false // a request is running or the document can no longer be signed
  let lastField = -1 // index of the field that last had focus, where "Next field" continues from
  let wasComplete = false

  const isMark = (f) => f.type === 'signature' || f.type === 'initials'
  const isFilled = (f) =>
    f.type === 'date' || (f.type === 'text' ? f.control.value.trim() !== '' : f.type === 'checkbox' ? f.control.checked : marks.has(f.id))

  for (const page of document.querySelectorAll('.page')) {
    const [width, height] = page.dataset.size.split(',')
    page.style.aspectRatio = `${width} / ${height}`
  }
  fields.forEach((f, index) => {
    const [left, top, width, height] = f.el.dataset.box.split(',')
    Object.assign(f.el.style, { left: `${left}%`, top: `${top}%`, width: `${width}%`, height: `${height}%` })
    f.el.addEventListener('focusin', () => (lastField = index))
    if (isMark(f)) {
      f.hint = f.control.firstElementChild
      f.control.addEventListener('click', () => (adopted[f.type] && !marks.has(f.id) ? applyMark(f, adopted[f.type], true) : openMarkDialog(f)))
    } else {
      f.control.addEventListener(f.type === 'checkbox' ? 'change' : 'input', update)
    }
  })

  function update() {
    const done = required.filter(isFilled).length
    for (const f of fields) {
      f.el.classList.toggle('is-filled', isFilled(f))
      // Once a mark replaces the visible "Sign"/"Initial", the name says the field is done.
      if (isMark(f)) f.control.setAttribute('aria-label', marks.has(f.id) ? `${f.name.replace(/^\w+: /, '')}, filled; select to change` : f.name)
    }
    $('#progress-text').textContent = required.length ? `${done} of ${required.length} required fields done` : 'No required fields'
    $('#progress-bar').style.width = `${required.length ? (done / required.length) * 100 : 100}%`
    finish.disabled = busy || done < required.length
    const complete = done === required.length
    if (complete && !wasComplete && required.length) announce('All required fields are done. Select Finish to sign.')
    wasComplete = complete
  }
  update()

  $('#next-field').addEventListener('click', () => {
    const todo = fields.filter((f) => f.required && !isFilled(f))
    if (todo.length === 0) {
      finish.focus()
      announce('All required fields are done. Select Finish to sign.')
      return
    }
    const next = todo.find((f) => fields.indexOf(f) > lastField) ?? todo[0]
    next.el.scrollIntoView({ block: 'center', behavior: reducedMotion ? 'auto' : 'smooth' })
    next.control.focus({ preventScroll: true })
    next.el.classList.remove('is-pulsing')
    void next.el.offsetWidth // restart the CSS animation
    next.el.classList.add('is-pulsing')
  })

  // ---- Rendering the PDF ------------------------------------------------------------------
  renderDocument().catch((error) => showAlert(`The document could not be displayed (${error?.message ?? error}).`, true))

  async function renderDocument() {
    const pdfjs = await import(boot.assets.pdfjs)
    pdfjs.GlobalWorkerOptions.workerSrc = boot.assets.pdfWorker
    // No eval under our CSP; pdf.js would otherwise try `new Function` for font outlines.
    const pdf = await pdfjs.getDocument({ url: boot.urls.document, isEvalSupported: false }).promise
    const state = new Map() // page element → { key, task }: what is drawn (or drawing) at which size
    const near = new Set() // pages in or near the viewport; only those are (re-)rendered
    let viewed = false

    const render = async (el) => {
      const dpr = Math.min(window.devicePixelRatio || 1, 3) // beyond 3× costs memory, not sharpness
      const key = `${el.clientWidth}@${dpr}`
      const s = state.get(el) ?? {}
      if (s.key === key) return
      s.task?.cancel()
      s.key = key
      state.set(el, s)
      const page = await pdf.getPage(Number(el.dataset.page))
      if (s.key !== key) return // a newer render of this page (another size) started meanwhile
      const viewport = page.getViewport({ scale: (el.clientWidth / page.getViewport({ scale: 1 }).width) * dpr })
      const canvas = Object.assign(document.createElement('canvas'), { className: 'page-canvas', width: Math.round(viewport.width), height: Math.round(viewport.height) })
      canvas.setAttribute('aria-hidden', 'true')
      s.task = page.render({ canvas, canvasContext: canvas.getContext('2d'), viewport })
      try {
        await s.task.promise
      } catch (error) {
        if (error?.name === 'RenderingCancelledException') return
        s.key = null
        throw error
      }
      // Swap only when done, so a resize never shows a blank page.
      const old = el.querySelector('.page-canvas')
      if (old) old.replaceWith(canvas)
      else el.prepend(canvas)
      el.classList.add('is-rendered')
      if (!viewed) {
        viewed = true
        markViewed()
      }
    }
    const renderSafely = (el) => render(el).catch((error) => showAlert(`Page ${el.dataset.page} could not be displayed (${error?.message ?? error}).`))

    // Long documents: render pages as they approach the viewport instead of all at once.
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) {
            near.add(entry.target)
            void renderSafely(entry.target)
          } else near.delete(entry.target)
        }
      },
      { rootMargin: '100% 0px' },
    )
    document.querySelectorAll('.page').forEach((el) => observer.observe(el))
    let timer
    new ResizeObserver(() => {
      clearTimeout(timer)
      timer = setTimeout(() => near.forEach(renderSafely), 150)
    }).observe($('#document'))
  }

  function markViewed() {
    document.body.dataset.ready = 'true'
    postJson(boot.urls.view, {}).catch((error) => {
      if (error.status === 409 || error.status === 410) showAlert(error.message, true)
    })
  }

  // ---- Signature and initials dialog ------------------------------------------------------
  const dialog = $('#signature-dialog')
  const pad = $('#signature-pad')
  const typed = $('#signature-text')
  const dialogError = $('#signature-error')
  const tabs = [$('#tab-draw'), $('#tab-type')]
  const scriptFont = new FontFace('Signet Script', `url(${boot.assets.font})`)
  document.fonts.add(scriptFont)
  scriptFont.load().catch(() => {}) // the "cursive" fallback is fine when it cannot load
  let current = null // the field being signed
  let mode = 'draw'

  function openMarkDialog(f) {
    current = f
    const initials = f.type === 'initials'
    $('#signature-title').textContent = initials ? 'Add your initials' : 'Add your signature'
    $('#signature-text-label').textContent = initials ? 'Type your initials' : 'Type your name'
    $('#signature-legal').textContent = `By selecting Apply, you agree that ${initials ? 'these are your electronic initials' : 'this is your electronic signature'}, as valid as ${initials ? 'initials' : 'a signature'} on paper.`
    typed.value = initials ? boot.signer.initials : boot.signer.name
    $('#signature-remove').hidden = !marks.has(f.id)
    clearPad()
    dialog.showModal()
    selectTab(tabs[mode === 'draw' ? 0 : 1], true)
  }
  dialog.addEventListener('close', () => current?.control.focus())

  function selectTab(tab, focus) {
    for (const t of tabs) {
      t.setAttribute('aria-selected', String(t === tab))
      t.tabIndex = t === tab ? 0 : -1
      document.getElementById(t.getAttribute('aria-controls')).hidden = t !== tab
    }
    mode = tab === tabs[0] ? 'draw' : 'type'
    dialogError.textContent = ''
    if (focus) tab.focus()
  }
  tabs.forEach((tab, i) => {
    // A mouse or touch click on "Type" goes straight to the input; keyboard users stay on the tab.
    tab.addEventListener('click', (event) => {
      selectTab(tab, true)
      if (event.detail > 0 && mode === 'type') typed.focus()
    })
    tab.addEventListener('keydown', (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1, Home: -i, End: tabs.length - 1 - i }[event.key]
      if (step === undefined) return
      event.preventDefault()
      selectTab(tabs[(i + step + tabs.length) % tabs.length], true)
    })
  })

  // Drawing: the canvas has a fixed 1200×400 bitmap; pointer positions are scaled to it, so the
  // drawing survives layout changes. `ink` is the bounding box of the strokes, used for cropping.
  const ctx = pad.getContext('2d')
  let ink = null
  let last = null
  const clearPad = () => {
    ctx.clearRect(0, 0, pad.width, pad.height)
    ink = null
  }
  const toCanvas = (event) => {
    const r = pad.getBoundingClientRect()
    return { x: ((event.clientX - r.left) * pad.width) / r.width, y: ((event.clientY - r.top) * pad.height) / r.height }
  }
  const stroke = (from, to) => {
    Object.assign(ctx, { strokeStyle: INK, lineWidth: 6, lineCap: 'round', lineJoin: 'round' })
    ctx.beginPath()
    ctx.moveTo(from.x, from.y)
    ctx.lineTo(to.x, to.y)
    ctx.stroke()
    const { minX = to.x, minY = to.y, maxX = to.x, maxY = to.y } = ink ?? {}
    ink = { minX: Math.min(minX, to.x), minY: Math.min(minY, to.y), maxX: Math.max(maxX, to.x), maxY: Math.max(maxY, to.y) }
  }
  pad.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return
    event.preventDefault()
    pad.setPointerCapture(event.pointerId)
    last = toCanvas(event)
    stroke(last, last) // a tap leaves a dot
    dialogError.textContent = ''
  })
  pad.addEventListener('pointermove', (event) => {
    if (!last) return
    // Browsers batch fast moves into one event per frame; the coalesced ones keep curves smooth.
    const batch = event.getCoalescedEvents?.() ?? []
    for (const e of batch.length ? batch : [event]) {
      const point = toCanvas(e)
      stroke(last, point)
      last = point
    }
  })
  for (const type of ['pointerup', 'pointercancel', 'lostpointercapture']) pad.addEventListener(type, () => (last = null))
  $('#signature-clear').addEventListener('click', () => {
    clearPad()
    announce('Drawing cleared.')
  })

  /** Crops `box` (plus a margin) out of `source` and scales it to fit 600×200: small PNGs (the server takes ≤ 256 KiB). */
  function toPng(source, box) {
    const x = Math.max(0, Math.floor(box.minX - 12))
    const y = Math.max(0, Math.floor(box.minY - 12))
    const w = Math.min(source.width, Math.ceil(box.maxX + 12)) - x
    const h = Math.min(source.height, Math.ceil(box.maxY + 12)) - y
    const scale = Math.min(1, 600 / w, 200 / h)
    const out = Object.assign(document.createElement('canvas'), { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) })
    const c = out.getContext('2d')
    c.imageSmoothingQuality = 'high'
    c.drawImage(source, x, y, w, h, 0, 0, out.width, out.height)
    return out.toDataURL('image/png')
  }

  async function typedPng(text) {
    await scriptFont.load().catch(() => {})
    const canvas = document.createElement('canvas')
    const font = '120px "Signet Script", cursive'
    let c = canvas.getContext('2d')
    c.font = font
    const m = c.measureText(text)
    canvas.width = Math.ceil(m.actualBoundingBoxLeft + m.actualBoundingBoxRight) + 24
    canvas.height = Math.ceil(m.actualBoundingBoxAscent + m.actualBoundingBoxDescent) + 24
    c = canvas.getContext('2d') // resizing reset the context's state
    Object.assign(c, { font, fillStyle: INK })
    c.fillText(text, 12 + m.actualBoundingBoxLeft, 12 + m.actualBoundingBoxAscent)
    return toPng(canvas, { minX: 0, minY: 0, maxX: canvas.width, maxY: canvas.height })
  }

  $('#signature-apply').addEventListener('click', async () => {
    const what = current.type === 'initials' ? 'initials' : 'signature'
    let png
    if (mode === 'draw') {
      if (!ink) return void (dialogError.textContent = `Draw your ${what} in the box first, or choose Type.`)
      png = toPng(pad, ink)
    } else {
      const text = typed.value.trim()
      if (!text) {
        dialogError.textContent = `Type your ${what === 'initials' ? 'initials' : 'name'} first.`
        return typed.focus()
      }
      png = await typedPng(text)
    }
    adopted[current.type] = png
    dialog.close()
    applyMark(current, png, false)
  })

  typed.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return
    event.preventDefault() // else the Enter's keypress would also "click" the field focused after closing
    $('#signature-apply').click()
  })

  $('#signature-remove').addEventListener('click', () => {
    // Removing means "not this one": stop offering it for one-click reuse too.
    if (adopted[current.type] === marks.get(current.id)) delete adopted[current.type]
    marks.delete(current.id)
    current.control.replaceChildren(current.hint)
    dialog.close()
    update()
    announce(`${current.type === 'initials' ? 'Initials' : 'Signature'} removed.`)
  })

  function applyMark(f, png, reused) {
    marks.set(f.id, png)
    f.control.replaceChildren(Object.assign(new Image(), { src: png, alt: '' }))
    update()
    const what = f.type === 'initials' ? 'Initials' : 'Signature'
    announce(`${what} added${reused ? '; select it again to change it' : ''}. ${$('#progress-text').textContent}.`)
  }

  // ---- Finish and decline -----------------------------------------------------------------
  /** Posts, then reloads: the server answers the reload with the status page. Returns an error the caller shows. */
  async function send(button, url, body) {
    setBusy(true, button)
    try {
      await postJson(url, body)
      location.reload()
      return null
    } catch (error) {
      setBusy(false, button)
      // The document changed meanwhile (voided, expired, completed…): nothing left to do but reload.
      if (error.status === 409 || error.status === 410) {
        document.querySelectorAll('dialog[open]').forEach((d) => d.close())
        showAlert(error.message, true)
        return null
      }
      return error
    }
  }
  function setBusy(on, button) {
    busy = on
    button.classList.toggle('is-busy', on)
    button.disabled = on
    $('#decline-open').disabled = on
    update()
  }

  finish.addEventListener('click', async () => {
    const values = {}
    for (const f of fields) {
      if (isMark(f) && marks.has(f.id)) values[f.id] = marks.get(f.id)
      if (f.type === 'text' && f.control.value.trim()) values[f.id] = f.control.value.trim()
      if (f.type === 'checkbox') values[f.id] = f.control.checked
    }
    announce('Signing…')
    const error = await send(finish, boot.urls.finish, { values })
    if (error) showAlert(error.message)
  })

  const declineDialog = $('#decline-dialog')
  $('#decline-open').addEventListener('click', () => {
    $('#decline-error').textContent = ''
    declineDialog.showModal()
    $('#decline-reason').focus()
  })
  $('#decline-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const reason = $('#decline-reason').value.trim()
    const error = await send($('#decline-confirm'), boot.urls.decline, reason ? { reason } : {})
    if (error) $('#decline-error').textContent = error.message
  })

  function showAlert(text, fatal = false) {
    $('#sign-alert-text').textContent = text
    $('#sign-alert-reload').hidden = !fatal
    $('#sign-alert-dismiss').hidden = fatal
    $('#sign-alert').hidden = false
    if (fatal) {
      busy = true
      for (const id of ['#next-field', '#decline-open']) $(id).disabled = true
      update()
    }
  }
  $('#sign-alert-reload').addEventListener('click', () => location.reload())
  $('#sign-alert-dismiss').addEventListener('click', () => ($('#sign-alert').hidden = true))
}

function initCode() {
  const form = $('#code-form')
  const input = $('#code-input')
  const resend = $('#code-resend')
  const message = $('#code-message')
  let timer

  const say = (text, tone = '') => {
    message.textContent = text
    message.className = `message${tone ? ` is-${tone}` : ''}`
  }
  const showForm = () => {
    $('#code-start').hidden = true
    form.hidden = false
    input.focus()
  }
  // "Send a new code" stays disabled for the server's cool-down; the countdown is not a live
  // region on purpose (a screen reader would read out every second).
  const coolDown = (seconds) => {
    clearInterval(timer)
    let left = Math.max(0, Math.ceil(seconds))
    const tick = () => {
      resend.disabled = left > 0
      $('#code-countdown').textContent = left > 0 ? `available in ${left} s` : ''
      if (left-- <= 0) clearInterval(timer)
    }
    tick()
    timer = setInterval(tick, 1000)
  }

  async function requestCode(button) {
    button.disabled = true
    say('Sending…')
    try {
      const answer = await postJson(boot.urls.send, {})
      say(`We sent a code to ${answer.sent_to}. It can take a minute to arrive; check your spam folder too.`, 'success')
      showForm()
      coolDown(answer.resend_in_seconds ?? 60)
    } catch (error) {
      say(error.message, 'error')
      button.disabled = false
      if (error.status === 429) showForm() // asked too soon: a code is already on its way
    }
  }
  $('#code-send').addEventListener('click', () => requestCode($('#code-send')))
  resend.addEventListener('click', () => requestCode(resend))

  // Digits only, so a pasted "123 456" still fits.
  input.addEventListener('input', () => (input.value = input.value.replace(/\D/g, '').slice(0, 6)))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const code = input.value
    if (!/^\d{6}$/.test(code)) {
      say('Enter the 6-digit code from the email.', 'error')
      return input.focus()
    }
    const verify = $('#code-verify')
    verify.disabled = true
    try {
      await postJson(boot.urls.verify, { code })
      say('Verified. Opening the document…', 'success')
      location.reload()
    } catch (error) {
      verify.disabled = false
      say(error.message, 'error')
      input.select()
    }
  })
  document.body.dataset.ready = 'true'
}
