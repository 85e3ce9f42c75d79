from core.ui.views import traces

traces.render()
