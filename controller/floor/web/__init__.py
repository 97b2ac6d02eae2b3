"""The floor's web view (docs/floor-web.md): ``tablectl floor web``. Part of the floor's layer
(controller/floor/__init__.py says what it may use)."""
