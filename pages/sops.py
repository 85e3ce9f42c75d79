from core.ui.views import sops

sops.render()
