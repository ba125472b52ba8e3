"""Modal dialogs: submit (with its own preview and submit workers), confirm, choose, prompt."""
