import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A self-signed certificate made now with openssl in DIR (key.pem, cert.pem), for COMMON_NAME and,
 * when given, a subjectAltName such as `IP:127.0.0.1` (then a client that trusts cert.pem, e.g.
 * through NODE_EXTRA_CA_CERTS, accepts it for that address).
 */
export function selfSignedCertificate(
  dir: string,
  commonName: string,
  altName?: string,
): { key: Buffer; cert: Buffer; certFile: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      ...(altName === undefined ? [] : ['-addext', `subjectAltName=${altName}`]),
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const certFile = join(dir, 'cert.pem');
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(certFile), certFile };
}
