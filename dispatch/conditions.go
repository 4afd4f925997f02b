package dispatch
