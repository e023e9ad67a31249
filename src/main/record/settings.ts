/*
 * What a client needs to send its requests through the proxy: environment variables for the SDKs
 * that read one, and the Codex configuration for Codex, which takes its provider from settings.
 * The variables are the ones each client reads: ANTHROPIC_BASE_URL (the Anthropic SDK, Claude
 * Code), OPENAI_BASE_URL (the OpenAI SDK; its base includes /v1), GOOGLE_GEMINI_BASE_URL (the
 * @google/genai SDK, and so Gemini CLI) and GEMINI_BASE_URL (read by some other Gemini clients).
 */

export function clientEnv(base: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: `${base}/anthropic`,
    OPENAI_BASE_URL: `${base}/openai/v1`,
    GOOGLE_GEMINI_BASE_URL: `${base}/gemini`,
    GEMINI_BASE_URL: `${base}/gemini`,
    // The bare proxy address, for a wrapper script that writes a client's settings file itself.
    PALIMPSEST_RECORD_URL: base,
  };
}

/** Codex's command-line settings for a provider that goes through the proxy (Responses API, key from OPENAI_API_KEY). */
export function codexSetting(base: string): string {
  return `-c 'model_providers.palimpsest={name="palimpsest",base_url="${base}/openai/v1",wire_api="responses",env_key="OPENAI_API_KEY"}' -c model_provider=palimpsest`;
}
