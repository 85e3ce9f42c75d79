from core.ui.views import compare

compare.render()
