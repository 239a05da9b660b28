// The ptydeck command's exit codes, the same whichever side (a client or the host) ends the process.

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** `ptydeck attach` of a lost session: its screen was shown, and there is no exit code to give. */
export const EXIT_LOST = 3;
export const EXIT_SIGINT = 130;
export const EXIT_SIGTERM = 143;
