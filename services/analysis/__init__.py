"""The analysis team (분석팀): calculations and rule checks over a step's inputs
and the results of the steps it depends on."""
