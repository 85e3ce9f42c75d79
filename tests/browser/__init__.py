"""Real-browser end-to-end tests of the dashboard (headless Chromium via Playwright)."""
