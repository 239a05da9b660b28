/** Sessions' screens rendered from their byte logs, read by the agent tool and the panel alike. */
export { ScreenService, type MirrorScreen, type ScreenServiceOptions, type ScreenSnapshot, type ScreenText } from './screen-service.js';
export { ScreenMirror, type ScreenMirrorOptions } from './screen-mirror.js';
export { ScreenLostError } from './screen-lost-error.js';
