from core.ui.views import diagnoses

diagnoses.render()
