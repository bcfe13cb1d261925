// The email-providers package ships its list as JSON without types; its index.js reads the
// file with createRequire, which a bundle cannot follow, so the JSON is imported directly.
declare module 'email-providers/all.json' {
  const domains: string[];
  export default domains;
}
