"""Every port of the application, one module per area. Adapters implement them; tests/fakes.py
has in-memory ones. Import from the area's module (application.ports.batch, ...)."""
