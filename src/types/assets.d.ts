// Files webpack turns into URLs.
declare module "*.woff2" {
  const url: string;
  export default url;
}
