"""The floor's web view (issue 18, docs/floor-web.md): ``tablectl floor web``."""
