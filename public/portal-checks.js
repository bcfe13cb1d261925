// "What it gave you": shows the chosen protocol's fields only, reads a chosen metadata file
// into its text area, and checks the details as they are typed (a moment after the last
// key), showing each check in the page's live region. A file, not an inline script, so the
// Content-Security-Policy stays strict. Without script every field shows, the metadata is
// pasted, and the form's own "Check without saving" and "Save" run the same checks.
(() => {
  const form = document.getElementById('identity-provider-form');
  const region = document.getElementById('portal-checks');
  if (!form || !region) return;
  const checkUrl = form.getAttribute('data-check');
  const WAIT_MS = 800;
  const MOST_METADATA_BYTES = 128 * 1024;
  // What each protocol's check reads. The secret is not the identity provider's to check
  // here: it is never sent with a check.
  const SENT = {
    Saml2: ['Protocol', 'MetadataUrl', 'IdpMetadata', 'IdpEntityId'],
    OpenIdConnect: ['Protocol', 'Authority', 'ClientId'],
  };
  const CHECKED = new Set([...SENT.Saml2, ...SENT.OpenIdConnect]);
  const OUTCOMES = { passed: 'Passed', failed: 'Failed', 'not-checked': 'Not checked' };
  let timer;
  let inFlight;

  for (const element of form.querySelectorAll('.with-script')) element.hidden = false;

  const protocol = () => form.querySelector('input[name="Protocol"]:checked')?.value;
  const showProtocol = () => {
    for (const fieldset of form.querySelectorAll('.protocol-fields')) {
      fieldset.hidden = protocol() !== undefined && fieldset.getAttribute('data-protocol') !== protocol();
    }
  };
  showProtocol();

  const file = document.getElementById('metadata-file');
  const metadata = document.getElementById('field-IdpMetadata');
  file?.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (!chosen || !metadata) return;
    if (chosen.size > MOST_METADATA_BYTES) {
      show({ problem: 'This file is larger than 128 KiB: it is not an identity provider’s own metadata.' });
      return;
    }
    metadata.value = await chosen.text();
    schedule(0);
  });

  form.addEventListener('change', (event) => {
    if (event.target?.name === 'Protocol') showProtocol();
  });
  form.addEventListener('input', (event) => {
    if (CHECKED.has(event.target?.name)) schedule(WAIT_MS);
  });

  function schedule(waitMs) {
    window.clearTimeout(timer);
    timer = window.setTimeout(check, waitMs);
  }

  /** Whether the fields say enough to be checked: a metadata URL or file, or an issuer. */
  function worthChecking(fields) {
    if (fields.Protocol === 'Saml2') return `${fields.MetadataUrl}${fields.IdpMetadata}`.trim() !== '';
    return fields.Protocol === 'OpenIdConnect' && fields.Authority.trim() !== '';
  }

  async function check() {
    const data = new FormData(form);
    const fields = { _csrf: data.get('_csrf') };
    for (const name of SENT[protocol()] ?? []) fields[name] = String(data.get(name) ?? '');
    if (!worthChecking(fields)) return;
    inFlight?.abort();
    inFlight = new AbortController();
    show({ busy: true });
    try {
      const answer = await fetch(checkUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(fields),
        credentials: 'same-origin',
        signal: inFlight.signal,
      });
      const body = await answer.json();
      show(
        answer.ok ? { checks: body.checks } : { problem: body.problem ?? body.detail ?? 'The check could not run.' },
      );
    } catch (error) {
      if (error?.name !== 'AbortError')
        show({ problem: 'The check could not run: try the “Check without saving” button.' });
    }
  }

  /** Writes the checks (text only, never markup from the answer) into the live region. */
  function show(result) {
    region.replaceChildren();
    const heading = document.createElement('h2');
    heading.textContent = 'Checks';
    region.append(heading);
    if (result.busy || result.problem) {
      const line = document.createElement('p');
      line.className = result.problem ? 'field-error' : 'muted';
      line.textContent = result.problem ?? 'Checking…';
      region.append(line);
      return;
    }
    const list = document.createElement('ul');
    for (const item of result.checks ?? []) {
      const entry = document.createElement('li');
      entry.className = `check ${item.outcome}`;
      const outcome = document.createElement('span');
      outcome.className = 'outcome';
      outcome.textContent = `${OUTCOMES[item.outcome] ?? item.outcome}:`;
      entry.append(outcome, ` ${item.text}`);
      if (item.fix) {
        const fix = document.createElement('span');
        fix.className = 'muted';
        fix.textContent = ` ${item.fix}`;
        entry.append(fix);
      }
      list.append(entry);
    }
    region.append(list);
  }
})();
