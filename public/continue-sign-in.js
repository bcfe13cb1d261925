// The provider's answer was posted to us from its site, so the browser held back our
// SameSite=Lax cookies; posting it again from our own page sends them. A file, not an
// inline script, so the Content-Security-Policy stays strict. Without JavaScript the
// page's button does the same.
document.getElementById('continue-sign-in')?.submit();
