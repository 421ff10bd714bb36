"""Infrastructure shared by every service: settings, event store, bus, servers, CLI. No domain logic."""
