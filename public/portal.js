// The setup portal's copy buttons: each value marked `data-copy="<its label>"` gets a
// "Copy" button that puts its text on the clipboard and says so in the page's polite live
// region (#copy-status). A file, not an inline script, so the Content-Security-Policy stays
// strict; without script (or without the Clipboard API) the values stay plain selectable text.
(() => {
  const status = document.getElementById('copy-status');
  if (!navigator.clipboard || !status) return;
  for (const value of document.querySelectorAll('[data-copy]')) {
    const label = value.getAttribute('data-copy') || 'the value';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button secondary small copy-button';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', `Copy ${label}`);
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(value.textContent.trim());
        announce(`Copied ${label}.`);
      } catch {
        announce(`Could not copy ${label}: select it and copy it yourself.`);
      }
    });
    value.after(button);
  }

  function announce(message) {
    // Emptied first, so the same message said twice is announced twice.
    status.textContent = '';
    window.setTimeout(() => {
      status.textContent = message;
    }, 50);
  }
})();
