"""lab_ui: everything between the core and a page: text in two languages, figures, shared
widgets, and the URL state. Pages import from here; this package imports attention_core;
attention_core imports neither."""
