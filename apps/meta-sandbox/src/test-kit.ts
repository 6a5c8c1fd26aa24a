import { MetaSandbox, type MetaSandboxOptions } from './sandbox';

export interface GraphReply {
  status: number;
  headers: Headers;
  body: any;
}

export interface RunningSandbox {
  sandbox: MetaSandbox;
  baseUrl: string;
  origin: string;
  token: string;
  /** GET `<baseUrl>/<path>` with `access_token` added unless `query.access_token === null`. */
  get(path: string, query?: Record<string, string | null>): Promise<GraphReply>;
  /** Form-encoded POST (objects/arrays JSON-encoded, as Meta documents), token in the body. */
  postForm(path: string, fields: Record<string, unknown>, token?: string | null): Promise<GraphReply>;
  /** JSON POST with the token in an `Authorization: Bearer` header. */
  postJson(path: string, body: Record<string, unknown>, token?: string | null): Promise<GraphReply>;
  close(): Promise<void>;
}

async function reply(res: Response): Promise<GraphReply> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Starts a sandbox on a free port with small HTTP helpers, for tests and local experiments. */
export async function startSandbox(opts: Partial<MetaSandboxOptions> = {}): Promise<RunningSandbox> {
  const token = opts.accessToken ?? 'test-token';
  const sandbox = new MetaSandbox({ ...opts, accessToken: token });
  const { baseUrl, origin } = await sandbox.listen(0);
  const url = (path: string): URL => new URL(`${baseUrl}/${path.replace(/^\/+/, '')}`);
  return {
    sandbox,
    baseUrl,
    origin,
    token,
    async get(path, query = {}) {
      const target = url(path);
      const all: Record<string, string | null> = { access_token: token, ...query };
      for (const [key, value] of Object.entries(all)) if (value !== null) target.searchParams.set(key, value);
      return reply(await fetch(target));
    },
    async postForm(path, fields, tokenOverride) {
      const form = new URLSearchParams();
      const all = tokenOverride === null ? fields : { ...fields, access_token: tokenOverride ?? token };
      for (const [key, value] of Object.entries(all)) {
        if (value !== undefined)
          form.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
      }
      return reply(await fetch(url(path), { method: 'POST', body: form }));
    },
    async postJson(path, body, tokenOverride) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (tokenOverride !== null) headers.authorization = `Bearer ${tokenOverride ?? token}`;
      return reply(await fetch(url(path), { method: 'POST', headers, body: JSON.stringify(body) }));
    },
    close: () => sandbox.close(),
  };
}
