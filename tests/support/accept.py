"""The Accept headers the gateway negotiates on, as real clients send them."""

# What Chromium and Firefox send when they navigate to a page.
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
