import type { ReactNode } from 'react';
import { navigate } from './navigation';

/** An in-app link: a real `<a href>` (new tab, copy link work) that navigates without a reload. */
export function Link({ to, replace = false, children }: { to: string; replace?: boolean; children: ReactNode }) {
  return (
    <a
      href={to}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to, { replace });
      }}
    >
      {children}
    </a>
  );
}
