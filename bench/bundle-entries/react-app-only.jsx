// Baseline for the React rows: the same App and root, with a stand-in hook and no auth library.
import { createRoot } from 'react-dom/client';

const useAuth = () => ({ status: 'loading', user: undefined, login() {}, logout() {}, async getAccessToken() {} });

function App() {
  const { status, user, login, logout, getAccessToken } = useAuth();
  if (status === 'loading') return <p>Loading…</p>;
  if (status !== 'authenticated') return <button type="button" onClick={() => login()}>Log in</button>;
  return (
    <>
      <p>Hello {user?.name}</p>
      <button type="button" onClick={async () => console.log(await getAccessToken())}>Call API</button>
      <button type="button" onClick={() => logout()}>Log out</button>
    </>
  );
}

createRoot(document.getElementById('root')).render(<App />);
