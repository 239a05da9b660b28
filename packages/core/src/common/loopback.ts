// Whether an address is this machine's loopback.

/** 127.0.0.0/8 or ::1, written as an address (a name such as localhost is not one: a resolver answers it). */
export function isLoopbackAddress(host: string): boolean {
  return host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
