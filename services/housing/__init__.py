"""The product's one vocabulary of Korean housing: money (money.py), amounts and their roles (amounts.py),
areas (area.py), places (places.py), dates and terms (dates.py), the question's entities read from all
of them (entities.py), and lease clauses against the tenant (clauses.py). Plain functions over plain data;
imports nothing of the project but `contracts`."""
