/**
 * The one look of every page the demo's own servers show (the demo OpenID provider's
 * sign-in, consent and sign-out pages, the demo SAML identity provider's, the vendor-shaped
 * servers' consent pages): a small card that fits a phone, with a line above the title
 * saying whose page it is, so nobody mistakes a demo server for the real vendor. Plain
 * HTML and one inline stylesheet, no script unless a page brings its own; development
 * only, nothing in src/ imports it.
 */

export interface DemoPage {
  /** Whose page this is, shown above the title: "Demo identity provider · development only". */
  eyebrow: string;
  title: string;
  /** The page's HTML, already escaped where it quotes anything. */
  body: string;
  /** Attributes of the body element (the SAML POST page's onload, which submits its form). */
  bodyAttributes?: string;
}

export function demoPage(page: DemoPage): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · ${escapeHtml(page.eyebrow)}</title>
<style>${STYLE}</style>
</head>
<body${page.bodyAttributes ? ` ${page.bodyAttributes}` : ''}>
<main>
<p class="eyebrow">${escapeHtml(page.eyebrow)}</p>
<h1>${escapeHtml(page.title)}</h1>
${page.body}
</main>
</body>
</html>`;
}

/** A URL shown on a page, escaped, that a narrow screen breaks after a slash rather than mid-word. */
export function breakableUrl(url: string): string {
  return `<code class="url">${escapeHtml(url).replace(/\//g, '/<wbr>')}</code>`;
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Radio choices (`.choice`) and a note (`.note`) besides the form controls every page has. */
const STYLE = `body{margin:0;padding:2rem 1rem;background:#f3f1ec;color:#2a2620;font:16px/1.5 system-ui,sans-serif}
main{max-width:26rem;margin:0 auto;background:#fff;border:1px solid #e2ddd2;border-radius:10px;padding:1.5rem;overflow-wrap:anywhere}
h1{margin:0 0 1rem;font-size:1.4rem}h2{margin:1.5rem 0 .5rem;font-size:1.05rem}.eyebrow{margin:0;color:#8a5a00;font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.05em}
label{display:block;margin:.6rem 0;font-size:.9rem}input{display:block;width:100%;box-sizing:border-box;margin-top:.2rem;padding:.5rem;font:inherit;border:1px solid #cfc8b8;border-radius:6px}
.choice{display:flex;gap:.6rem;align-items:baseline;margin:.4rem 0;padding:.6rem .8rem;border:1px solid #e2ddd2;border-radius:6px;font-size:1rem;cursor:pointer}
.choice input{display:inline;width:auto;margin:0;flex:none}.choice small{display:block;color:#6b6457}
button{display:block;width:100%;margin:.8rem 0 0;padding:.6rem;font:inherit;color:#fff;background:#8a5a00;border:1px solid #8a5a00;border-radius:6px;cursor:pointer}
button.secondary{color:#8a5a00;background:#fff}code{background:#f3f1ec;padding:0 .3em;border-radius:4px}
.note{margin:1rem 0;padding:.6rem .8rem;border-left:4px solid #8a5a00;background:#faf5ea;font-size:.9rem}
.url{overflow-wrap:anywhere}.problem{color:#a3261b}.small{font-size:.85rem;color:#6b6457}ul{padding-left:1.2rem}form+form{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #e2ddd2}`;
