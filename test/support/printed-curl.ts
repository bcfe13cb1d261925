import { expect } from 'chai';

/**
 * What a printed `curl` command sends, as a shell would read it (single quotes, `\` line
 * continuations) and curl would send it: the demo's terminal and the setup portal's demo
 * hint print commands a person pastes, and the tests run them as pasted. Only the options
 * they print are read (-i, -X, -H, -d); any other fails the test.
 */
export function curlRequest(command: string): { url: string; init: RequestInit } {
  const [program, ...words] = shellWords(command);
  expect(program).to.equal('curl');
  const headers = new Headers();
  const data: string[] = [];
  let method: string | undefined;
  let url: string | undefined;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? '';
    if (word === '-i') continue;
    else if (word === '-X') method = words[++index];
    else if (word === '-H') {
      const header = words[++index] ?? '';
      headers.set(header.slice(0, header.indexOf(':')), header.slice(header.indexOf(':') + 1).trim());
    } else if (word === '-d') data.push(words[++index] ?? '');
    else if (/^https?:\/\//.test(word)) url = word;
    else expect.fail(`a curl option this test does not read: ${word}`);
  }
  // curl -d: POST unless -X says otherwise, the pieces joined by "&", sent as a form unless a header says otherwise.
  if (data.length > 0 && !headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
  return {
    url: url ?? expect.fail(`no URL in ${command}`),
    init: {
      method: method ?? (data.length > 0 ? 'POST' : 'GET'),
      headers,
      ...(data.length > 0 ? { body: data.join('&') } : {}),
    },
  };
}

/** The words a POSIX shell reads in `text`: only single quotes, backslashes and whitespace are understood. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? '';
    if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end < 0) expect.fail(`an unclosed quote in ${text}`);
      word = (word ?? '') + text.slice(index + 1, end);
      index = end;
    } else if (char === '\\') {
      const next = text[++index] ?? '';
      if (next !== '\n') word = (word ?? '') + next;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}
