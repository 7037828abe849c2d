// A real browser against a real server: a test may start pages, wait for mail and run axe.
jest.setTimeout(60_000);
