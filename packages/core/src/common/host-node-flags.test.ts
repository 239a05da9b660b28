import { describe, expect, it } from 'vitest';
import { HOST_ADDED_ENV, HOST_ALLOCATOR_ENV, shedHostAllocatorEnv, withHostAllocator } from './host-node-flags.js';

describe("the host's allocator settings", () => {
  it('are added where the starter does not set them, and shed by the host', () => {
    const env = withHostAllocator({ HOME: '/home/dev' });
    expect(env).toMatchObject({ ...HOST_ALLOCATOR_ENV, HOME: '/home/dev' });
    shedHostAllocatorEnv(env);
    expect(env).toEqual({ HOME: '/home/dev' });
  });

  it("keep the developer's own value, which the host does not shed, and shed nothing but their names", () => {
    const own = Object.fromEntries(Object.keys(HOST_ALLOCATOR_ENV).map((name) => [name, '4096']));
    const env = withHostAllocator({ ...own, [HOST_ADDED_ENV]: 'stale' });
    expect(env).toEqual(own);
    const planted = { ...own, HOME: '/home/dev', [HOST_ADDED_ENV]: `HOME,${Object.keys(HOST_ALLOCATOR_ENV).join(',')}` };
    shedHostAllocatorEnv(planted);
    expect(planted).toEqual({ HOME: '/home/dev' });
  });
});
