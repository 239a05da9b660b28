// Serves the renderer's built files with their security headers.
import { createReadStream, existsSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The renderer's built files: in the installed `ptydeck` package, its app
 * folder (scripts/pack.mjs puts it there); in a checkout, packages/app/dist,
 * found through the @ptydeck/app workspace package when it resolves, else
 * beside this package.
 */
export function defaultAppDir(): string {
  // dist/bundle → the package root → app
  const packaged = fileURLToPath(new URL('../../app/', import.meta.url));
  if (existsSync(join(packaged, 'index.html'))) return packaged;
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve('@ptydeck/app/package.json')), 'dist');
  } catch {
    // src/server or dist/server → packages/core → packages/app/dist
    return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'app', 'dist');
  }
}

/**
 * The page may load only its own scripts and styles and talk only to this
 * server. Inline styles are allowed because xterm.js positions its DOM with
 * them; inline scripts and eval are not. 'wasm-unsafe-eval' lets the page
 * compile WebAssembly (asciinema's player parses the terminal in its bundled
 * WebAssembly), which runs no JavaScript text: eval stays forbidden.
 */
export function contentSecurityPolicy(host: string): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    `connect-src 'self' ws://${host}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function securityHeaders(host: string): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(host),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

export class StaticFiles {
  private readonly root: string | undefined;

  constructor(appDir: string) {
    // Resolve symlinks once so containment is checked against the real tree.
    this.root = existsSync(appDir) ? realpathSync(appDir) : undefined;
  }

  /** Serves GET/HEAD for a path under the app directory; anything else is 404/405. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string, host: string): void {
    const headers = securityHeaders(host);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Method not allowed\n');
      return;
    }
    const file = this.resolveFile(pathname);
    if (file === 'forbidden') {
      res.writeHead(403, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Forbidden\n');
      return;
    }
    if (!file) {
      const body = this.root
        ? 'Not found\n'
        : 'The ptydeck renderer is not built: run `npm run build` (it builds packages/app/dist).\n';
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(body);
      return;
    }
    const type = MIME_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream';
    res.writeHead(200, {
      ...headers,
      'Content-Type': type,
      'Content-Length': String(file.size),
      // index.html names hashed assets: always revalidate it; assets may be cached.
      'Cache-Control': type.startsWith('text/html') ? 'no-cache' : 'public, max-age=3600',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(file.path);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  private resolveFile(pathname: string): { path: string; size: number } | 'forbidden' | undefined {
    if (!this.root) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return 'forbidden';
    }
    if (decoded.includes('\0') || decoded.includes('\\')) return 'forbidden';
    const segments = decoded.split('/');
    if (segments.some((s) => s === '..' || s === '.')) return 'forbidden';
    // Dot files (e.g. .env, .git) are never part of a built renderer.
    if (segments.some((s) => s.startsWith('.'))) return 'forbidden';
    const relative = decoded.endsWith('/') ? decoded + 'index.html' : decoded;
    const candidate = resolve(this.root, '.' + relative);
    if (!isInside(this.root, candidate)) return 'forbidden';
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      return undefined;
    }
    if (!isInside(this.root, real)) return 'forbidden';
    const stat = statSync(real, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    return { path: real, size: stat.size };
  }
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
