import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { fixturesDir, pdf } from '../documents.ts';
import { gif, jpeg, png, svg, webp } from '../files.ts';
import type { Body, FileContent, Operation, Part, RequestSpec } from './requests.ts';
import { type Ref, type Resolver, serialize } from './values.ts';

/** A request as it goes on the wire. */
export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What the body is, for the report. */
  bodyLabel: string;
}

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: unknown;
  ms: number;
}

const pdfCache = new Map<string, Promise<Buffer>>();
let docxTemplate: Buffer | undefined;

function contractDocx(): Buffer {
  docxTemplate ??= readFileSync(path.join(fixturesDir, 'common-paper-mutual-nda.docx'));
  return docxTemplate;
}

/** A DOCX whose text holds a run of spaces (what table padding produces). */
function docxWithSpaces(spaces: number): Buffer {
  const files = unzipSync(contractDocx());
  const xml = Buffer.from(files['word/document.xml']!).toString('utf8');
  files['word/document.xml'] = Buffer.from(
    xml.replace(
      '<w:body>',
      `<w:body><w:p><w:r><w:t xml:space="preserve">[a]${' '.repeat(spaces)}x</w:t></w:r></w:p>`,
    ),
  );
  return Buffer.from(zipSync(files));
}

export async function fileBytes(content: FileContent): Promise<Buffer> {
  switch (content.kind) {
    case 'png':
      return png(Math.min(content.width, 64), content.height);
    case 'gif':
      return gif(content.width, content.height);
    case 'jpeg':
      return jpeg(content.width, content.height);
    case 'webp':
      return webp(content.width, content.height);
    case 'svg':
      return svg(content.width, content.height);
    case 'lyingPng': {
      const bytes = png(1, 1);
      bytes.writeUInt32BE(content.width >>> 0, 16);
      bytes.writeUInt32BE(content.height >>> 0, 20);
      return bytes;
    }
    case 'svgComments':
      return Buffer.from(`${'<!---->'.repeat(content.count)}x`);
    case 'svgEntities':
      return Buffer.from(
        `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&c;</text></svg>`,
      );
    case 'svgLarge':
      return Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${'<!-- -->\n'.repeat(content.size / 9)}</svg>`,
      );
    case 'bytes':
      return Buffer.from(content.bytes);
    case 'text':
      return Buffer.from(content.text, 'utf8');
    case 'oversize':
      return Buffer.concat([png(1, 1), Buffer.alloc(content.bytes)]);
    case 'docx':
      return contractDocx();
    case 'docxSpaces':
      return docxWithSpaces(content.spaces);
    case 'pdf': {
      const made = pdfCache.get(content.text) ?? pdf(content.text);
      pdfCache.set(content.text, made);
      return made;
    }
    case 'pdfHeader':
      return Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');
    case 'zip':
      return Buffer.from(zipSync({ 'contract.pdf': Buffer.from('%PDF-1.4 not really') }));
  }
}

async function multipartBody(parts: Part[], envelope: string, boundary: string) {
  const newline = envelope === 'lf' ? '\n' : '\r\n';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `Content-Disposition: form-data; name="${part.name}"`;
    const head = Buffer.from(`--${envelope === 'wrongBoundary' ? 'other' : boundary}${newline}`, 'latin1');
    let filename = Buffer.alloc(0);
    if (part.filename !== undefined) {
      disposition += '; filename="';
      filename = Buffer.from(part.filename, part.filenameEncoding);
    }
    chunks.push(head, Buffer.from(disposition, 'latin1'), filename);
    if (part.filename !== undefined) chunks.push(Buffer.from('"', 'latin1'));
    chunks.push(Buffer.from(newline, 'latin1'));
    if (part.contentType) chunks.push(Buffer.from(`Content-Type: ${part.contentType}${newline}`, 'latin1'));
    chunks.push(
      Buffer.from(newline, 'latin1'),
      await fileBytes(part.content),
      Buffer.from(newline, 'latin1'),
    );
  }
  if (envelope !== 'truncated') chunks.push(Buffer.from(`--${boundary}--${newline}`, 'latin1'));
  const body = Buffer.concat(chunks);
  return envelope === 'truncated' ? body.subarray(0, Math.max(0, body.length - 7)) : body;
}

function describeContent(content: FileContent): string {
  const { kind, ...rest } = content;
  const detail = Object.entries(rest)
    .map(
      ([key, value]) =>
        `${key}=${Array.isArray(value) ? `[${value.length} bytes]` : JSON.stringify(value)?.slice(0, 60)}`,
    )
    .join(' ');
  return detail ? `${kind}(${detail})` : kind;
}

export function describeBody(body: Body): string {
  switch (body.kind) {
    case 'none':
      return 'no body';
    case 'json':
    case 'text':
      return body.label;
    case 'multipart':
      return `multipart (${body.envelope}): ${body.parts
        .map(
          (part) =>
            `[name=${JSON.stringify(part.name)} filename=${part.filename === undefined ? '-' : JSON.stringify(part.filename).slice(0, 80)} (${part.filenameEncoding}) type=${part.contentType ?? '-'} ${describeContent(part.content)}]`,
        )
        .join(' ')}`;
  }
}

/** Builds the wire request. `resolve` turns Refs into values; `cookie` is the actor's session. */
export async function toWire(
  operation: Operation,
  spec: RequestSpec,
  resolve: Resolver,
  cookie: string | undefined,
): Promise<WireRequest> {
  const segment = (name: string) => {
    const value = spec.params[name];
    if (!value) return 'missing';
    if ('raw' in value) return value.raw;
    return String(resolve(value as Ref));
  };
  let path = `/api${operation.path.replace(/\{(\w+)\}/g, (_m, name: string) => segment(name))}`;
  if (spec.query.length > 0) {
    path += `?${spec.query
      .map(([name, value]) => {
        const text = 'raw' in value ? value.raw : encodeURIComponent(String(resolve(value as Ref)));
        return `${name}=${text}`;
      })
      .join('&')}`;
  }
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  if (cookie) headers.cookie = cookie;
  let body: Buffer | undefined;
  const { body: spec_body } = spec;
  if (spec_body.kind === 'json') {
    body = Buffer.from(serialize(spec_body.value, resolve), 'utf8');
    headers['content-type'] = spec_body.contentType;
  } else if (spec_body.kind === 'text') {
    body = Buffer.from(spec_body.text, 'utf8');
    if (spec_body.contentType !== undefined) headers['content-type'] = spec_body.contentType;
  } else if (spec_body.kind === 'multipart') {
    const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW';
    body = await multipartBody(spec_body.parts, spec_body.envelope, boundary);
    headers['content-type'] =
      spec_body.envelope === 'noBoundary'
        ? 'multipart/form-data'
        : spec_body.envelope === 'mixed'
          ? `multipart/mixed; boundary=${boundary}`
          : `multipart/form-data; boundary=${boundary}`;
  }
  // Without a length Node would send a GET or DELETE body unframed: say chunked explicitly.
  if (body) {
    if (spec.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(body.length);
  }
  return { method: spec.method, path, headers, body, bodyLabel: describeBody(spec_body) };
}

/** Sends one request over real HTTP; never throws for an HTTP status. */
export function send(base: string, request: WireRequest, timeoutMs: number): Promise<WireResponse> {
  const url = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let status: number | undefined;
    let headers: http.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ status: status ?? 0, headers, text, json, ms: performance.now() - started });
    };
    const outgoing = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        // A fresh connection each time: a reused keep-alive socket the server has just closed
        // would fail with ECONNRESET and look like a crash.
        agent: false,
      },
      (response) => {
        status = response.statusCode;
        headers = response.headers;
        // A stream (Server-Sent Events) never ends: its first chunk stands for the answer.
        const stream = String(response.headers['content-type']).startsWith('text/event-stream');
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (stream) {
            outgoing.destroy();
            finish();
          }
        });
        response.on('end', finish);
        response.on('error', finish);
      },
    );
    const timer = setTimeout(
      () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    outgoing.on('error', (error) => {
      // An answer that came before the server closed (a 413 cutting an upload short) still counts.
      if (status !== undefined) return finish();
      clearTimeout(timer);
      reject(error);
    });
    if (request.body) outgoing.end(request.body);
    else outgoing.end();
  });
}

/** How the request looks, for a failure report. */
export function describeRequest(request: WireRequest, limit = 800): string {
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== 'cookie' && name !== 'accept')
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  const path =
    request.path.length > 300
      ? `${request.path.slice(0, 300)}… (${request.path.length} chars)`
      : request.path;
  let body = '';
  if (request.body) {
    // Only the head: the body may be megabytes; runs are abbreviated (a…×1000).
    const text = request.body
      .subarray(0, limit * 8)
      .toString('latin1')
      .replace(/(.)\1{40,}/gs, (run, char: string) => `${char}…×${run.length}`);
    body = `\n  body (${request.body.length} bytes, ${request.bodyLabel}): ${text.length > limit ? `${text.slice(0, limit)}…` : text}`;
  } else {
    body = `\n  body: ${request.bodyLabel}`;
  }
  return `${request.method} ${path}${request.headers.cookie ? ' (signed in)' : ' (anonymous)'}${headers ? `\n  ${headers}` : ''}${body}`;
}

export function describeResponse(response: WireResponse, limit = 800): string {
  const text = response.text.length > limit ? `${response.text.slice(0, limit)}…` : response.text;
  return `${response.status} (${Math.round(response.ms)} ms) ${response.headers['content-type'] ?? 'no content-type'}\n  ${text}`;
}
