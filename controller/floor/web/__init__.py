"""The floor's web view (docs/floor-web.md): ``tablectl floor web``."""
