/** Injection token of the validated VigilConfig (provided once by PlatformModule.forRoot). */
export const VIGIL_CONFIG = Symbol('VIGIL_CONFIG');
