import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api';
import { App } from './App';
import { createAppStore } from './store';
import { applyTheme, watchSystemTheme } from './theme/theme';
import { StoreContext } from './useApp';
import './styles.css';

const store = createAppStore(createApi());

// The theme is applied before the first render (no flash of the other one) and on every change.
applyTheme(store.getState().theme);
store.subscribe((s, prev) => {
  if (s.theme !== prev.theme) applyTheme(s.theme);
});
watchSystemTheme(() => store.getState().systemThemeChanged());

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>
  </StrictMode>,
);
